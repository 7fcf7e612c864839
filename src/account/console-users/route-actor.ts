import type { FastifyRequest } from 'fastify';
import type { RefusedInput, StaffAuth } from '../../http/admin-endpoint.js';
import { recordedAddress } from '../../limits/client-address.js';
import type { StaffRole } from '../../modules/staff/permissions.js';
import type { AccessRecorder, StaffActor } from './staff-access.js';

/*
 * What every console route hands its service: who acts, and the record of a request its permission refused.
 * The console's users, content, banners and webhooks all name the member the same way.
 */

/** The member a service acts as: the session's id and role, and the request's whole client address. */
export function actorOf(staff: StaffAuth, request: FastifyRequest): StaffActor {
  return {
    id: staff.staff.id,
    role: staff.staff.role as StaffRole,
    clientAddress: recordedAddress(request.ip),
  };
}

/** Whom and what a refused request named, read from its `:id` (absent when the route has none). */
export type RefusedTarget = (id: string | undefined) => {
  subjectId: string | null;
  detail?: Record<string, unknown>;
};

/**
 * A refusal by the route's permission, written as the service's own gate would write it (the gate checks the
 * same table again behind the route): an attempt on someone's data is a record whatever its outcome.
 */
export function refusedAs(
  recorder: AccessRecorder,
  action: string,
  permission: string,
  target: RefusedTarget = () => ({ subjectId: null }),
) {
  return async ({ staff, request }: RefusedInput) => {
    const id = (request.params as { id?: unknown }).id;
    const actor = actorOf(staff, request);
    const { subjectId, detail } = target(typeof id === 'string' ? id : undefined);
    await recorder.record({
      actor: { kind: 'staff', id: actor.id },
      clientAddress: actor.clientAddress,
      subjectId,
      action,
      outcome: 'refused',
      detail: { permission, ...detail },
    });
  };
}
