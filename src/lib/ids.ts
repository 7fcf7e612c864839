import { v7 } from 'uuid';

/** UUIDv7: time-ordered, so new rows land at the end of the primary key index instead of all over it. */
export function newId(): string {
  return v7();
}
