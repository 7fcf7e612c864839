import { describe, expect, it } from 'vitest';
import { StaffGate } from '../../src/account/console-users/staff-access.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import { RecordingAccess, STAFF_ADDRESS, staff } from '../helpers/console-users.js';

const SUBJECT = '0193b000-0000-7000-8000-000000000001';
const act = {
  permission: 'users.act',
  action: 'users.disable',
  subjectId: SUBJECT,
  reasonRequired: true,
} as const;

describe('the staff gate', () => {
  it('runs the work for a role with the right and records it once, with the reason trimmed and the detail', async () => {
    const recorder = new RecordingAccess();
    const gate = new StaffGate(recorder);
    const result = await gate.run(
      staff('support'),
      { ...act, reason: '  asked by phone  ' },
      async () => 42,
      (n) => ({ n }),
    );
    expect(result).toBe(42);
    expect(recorder.take()).toEqual([
      {
        actor: { kind: 'staff', id: staff('support').id },
        clientAddress: STAFF_ADDRESS,
        subjectId: SUBJECT,
        action: 'users.disable',
        reason: 'asked by phone',
        outcome: 'ok',
        detail: { n: 42 },
      },
    ]);
  });

  it('refuses a role without the right before anything runs, and records the refusal', async () => {
    const recorder = new RecordingAccess();
    let ran = false;
    const work = async () => {
      ran = true;
    };
    await expect(new StaffGate(recorder).run(staff('content'), act, work)).rejects.toEqual(
      new ForbiddenError(),
    );
    expect(ran).toBe(false);
    expect(recorder.take()).toEqual([
      {
        actor: { kind: 'staff', id: staff('content').id },
        clientAddress: STAFF_ADDRESS,
        subjectId: SUBJECT,
        action: 'users.disable',
        outcome: 'refused',
        detail: { permission: 'users.act' },
      },
    ]);
  });

  it('wants a reason of 1 to 500 characters where one is required, and records nothing without it', async () => {
    const recorder = new RecordingAccess();
    const gate = new StaffGate(recorder);
    const work = async () => 'done';
    for (const reason of [undefined, '', ' \n ']) {
      await expect(gate.run(staff('admin'), { ...act, reason }, work)).rejects.toEqual(
        new ValidationError({ reason: [{ rule: 'required' }] }),
      );
    }
    await expect(gate.run(staff('admin'), { ...act, reason: '가'.repeat(501) }, work)).rejects.toEqual(
      new ValidationError({ reason: [{ rule: 'max.string', params: { max: 500 } }] }),
    );
    expect(await gate.run(staff('admin'), { ...act, reason: '가'.repeat(500) }, work)).toBe('done');
    expect(
      await gate.run(staff('viewer'), { ...act, permission: 'users.read', reasonRequired: false }, work),
    ).toBe('done');
    expect(recorder.take().map((entry) => entry.outcome)).toEqual(['ok', 'ok']);
  });

  it('records a failure with the error code and throws the error on', async () => {
    const recorder = new RecordingAccess();
    const failing = async () => {
      throw new NotFoundError('user');
    };
    await expect(
      new StaffGate(recorder).run(staff('support'), { ...act, reason: 'r' }, failing),
    ).rejects.toEqual(new NotFoundError('user'));
    await expect(
      new StaffGate(recorder).run(staff('support'), { ...act, reason: 'r' }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(recorder.take().map((entry) => [entry.outcome, entry.detail])).toEqual([
      ['failed', { error: 'not_found' }],
      ['failed', { error: 'internal' }],
    ]);
  });
});
