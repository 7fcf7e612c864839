/* The account events' SQL. Writing one is outbox.ts (every module writing a change needs it). */
export { type AccountEventInsert, accountEvent, insertAccountEventQuery } from './outbox.js';
