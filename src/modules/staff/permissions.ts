/**
 * What each staff role may do: the one table the console's services check. A role is a set of
 * permissions, never a rank compared with `>`: adding a role means adding a row here, and a reader sees every
 * right a role has without following an inheritance chain.
 */

export const staffRoles = ['viewer', 'support', 'content', 'admin'] as const;
export type StaffRole = (typeof staffRoles)[number];

export const permissions = [
  /** Search users and read a user's page, personal data masked. */
  'users.read',
  /** Show one personal-data field in full (with a reason, recorded). */
  'users.unmask',
  /** Export a search result as CSV (with a reason, recorded; masked below `admin`). */
  'users.export',
  /** The support actions on a user: disable, enable, revoke sessions, reset the second factor, … */
  'users.act',
  /** Read posts, banners, inspirers and consent documents. */
  'content.read',
  /** Change them: banners, inspirers, hide or delete posts, publish consent documents. */
  'content.write',
  /** Webhook endpoints, deliveries and replays. */
  'webhooks.manage',
  /** Add, change, disable and remove staff; unlock a locked staff account. */
  'staff.manage',
  /** Read the access records of every staff member and the monthly review. */
  'audit.read',
  /** An export's rows in full rather than masked. */
  'users.export_unmasked',
] as const;
export type Permission = (typeof permissions)[number];

const rolePermissions: Record<StaffRole, readonly Permission[]> = {
  viewer: ['users.read', 'content.read'],
  support: ['users.read', 'users.unmask', 'users.export', 'users.act', 'content.read'],
  content: ['users.read', 'content.read', 'content.write'],
  admin: permissions,
};

export function roleCan(role: StaffRole, permission: Permission): boolean {
  return rolePermissions[role].includes(permission);
}

export function permissionsOf(role: StaffRole): readonly Permission[] {
  return rolePermissions[role];
}

export function isStaffRole(value: string): value is StaffRole {
  return (staffRoles as readonly string[]).includes(value);
}
