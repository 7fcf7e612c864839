import { describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/db/schema.js';
import { publicUserView, userView } from '../../src/modules/users/view.js';

const row: UserRow = {
  id: '0190b1a8-0000-7000-8000-000000000001',
  email: 'Kim@Example.com',
  username: '김민준',
  username_skeleton: '김민준'.normalize('NFD'),
  slug: 'kim-minjun',
  gender: 1,
  bio: 'hello',
  password_hash: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA',
  profile_picture: {
    url: '/media/p.jpg',
    width: 640,
    height: 480,
    thumbnails: { '256': '/media/p-256.jpg', '64': '/media/p-64.jpg' },
    keys: ['p.jpg', 'p-256.jpg', 'p-64.jpg'],
  },
  is_inspirer: true,
  created_at: new Date('2024-03-01T09:30:00+09:00'),
  updated_at: new Date('2024-03-02T00:00:00Z'),
  disabled_at: null,
  email_verified: true,
  deletion_scheduled_at: null,
  deletion_due_at: null,
  birth_date: null,
  identity_verified_at: null,
  guardian_consent: null,
  guardian_pending_since: null,
  agreed_consents: {},
  phone: null,
  phone_verified: false,
};

describe('userView', () => {
  it('is the signed-in user’s own view: every field, ISO UTC times, no hash, no storage keys', () => {
    expect(userView(row, ['alpha'])).toEqual({
      id: row.id,
      email: 'Kim@Example.com',
      username: '김민준',
      slug: 'kim-minjun',
      gender: 1,
      bio: 'hello',
      profile_picture: {
        url: '/media/p.jpg',
        width: 640,
        height: 480,
        thumbnails: { '256': '/media/p-256.jpg', '64': '/media/p-64.jpg' },
      },
      providers: ['alpha'],
      has_password: true,
      email_verified: true,
      phone: null,
      phone_verified: false,
      identity_verified: false,
      adult: null,
      is_inspirer: true,
      created_at: '2024-03-01T00:30:00.000Z',
      updated_at: '2024-03-02T00:00:00.000Z',
      guardian_consent: null,
      restrictions: [],
    });
  });

  it('shows a child waiting for a guardian, and what that restricts', () => {
    const view = userView({ ...row, guardian_consent: 'pending' }, []);
    expect(view.guardian_consent).toBe('pending');
    expect(view.restrictions).toEqual(['guardian_consent_required']);
    expect(userView({ ...row, guardian_consent: 'granted' }, []).restrictions).toEqual([]);
  });

  it('says when the account has no password and no picture', () => {
    const view = userView({ ...row, password_hash: null, profile_picture: null }, []);
    expect(view.has_password).toBe(false);
    expect(view.profile_picture).toBeNull();
    expect(view.providers).toEqual([]);
  });

  it('says whether the account is verified and its person an adult, from the row alone', () => {
    const verified = userView(
      { ...row, birth_date: '1990-05-01', identity_verified_at: new Date('2026-11-01T00:00:00Z') },
      [],
    );
    expect(verified).toMatchObject({ identity_verified: true, adult: true });
    expect(userView({ ...row, birth_date: '2020-05-01' }, [])).toMatchObject({
      identity_verified: false,
      adult: false,
    });
  });

  it('accepts timestamps the driver returned as strings', () => {
    const view = userView({ ...row, created_at: '2024-01-01 00:00:00+00' as unknown as Date }, []);
    expect(view.created_at).toBe('2024-01-01T00:00:00.000Z');
  });
});

describe('publicUserView', () => {
  it('leaves out email, providers and the password flag', () => {
    expect(publicUserView(row)).toEqual({
      id: row.id,
      username: '김민준',
      slug: 'kim-minjun',
      gender: 1,
      bio: 'hello',
      profile_picture: {
        url: '/media/p.jpg',
        width: 640,
        height: 480,
        thumbnails: { '256': '/media/p-256.jpg', '64': '/media/p-64.jpg' },
      },
      is_inspirer: true,
      created_at: '2024-03-01T00:30:00.000Z',
      updated_at: '2024-03-02T00:00:00.000Z',
    });
  });
});
