/** The signed-in user as user/get and user/update answer it (the fields the profile page shows). */
export interface User {
  email: string;
  username: string;
  slug: string;
  gender: number;
  bio: string | null;
  has_password: boolean;
  /** The mobile number in E.164 (`+821012345678`), verified or still waiting for its code; null: none. */
  phone?: string | null;
  phone_verified?: boolean;
  identity_verified: boolean;
  adult: boolean | null;
  profile_picture: { url: string; thumbnails: Record<string, string> } | null;
}

type UserListener = (user: User) => void;
const listeners: UserListener[] = [];

/** A section that shows part of the user registers here; it is called on load and after every change. */
export function onUser(listener: UserListener): void {
  listeners.push(listener);
}

/** Every section shows the user as the API last answered it. */
export function showUser(user: User): void {
  for (const listener of listeners) listener(user);
}

/** The session is gone (revoked, expired, signed out elsewhere): the login page. */
export function toLogin(): void {
  location.replace('/login');
}
