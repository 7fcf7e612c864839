import { userInfo } from 'node:os';

/**
 * The operating-system user running this process: who an operator command is recorded as (the access
 * records' `cli` actor) and who a command handed to a server says it is. A user without a passwd entry (a
 * container's arbitrary uid) is named by its uid.
 */
export function osUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'unknown');
  }
}
