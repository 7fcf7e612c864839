import { PhoneCodeTexts } from '../account/phone/code-sms.js';
import { PhoneNumberService } from '../account/phone/service.js';
import { PhoneCodeSignIn } from '../account/phone-code/service.js';
import type { Reauthentication } from '../account/reauth/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { LoginLimits } from '../account/sign-in/login-attempts.js';
import type { SessionGate } from '../account/sign-in/session-gate.js';
import type { SignInTokens } from '../account/sign-in/tokens.js';
import type { OneTimeCodes } from '../modules/one-time-codes/service.js';
import { ReauthWindowsRepo } from '../modules/tokens/reauth-window-repo.js';
import { PhoneNumbersRepo } from '../modules/users/phone-repo.js';
import type { UsersService } from '../modules/users/service.js';
import { SmsGuard } from '../sms/guard.js';
import type { FactoryArgs } from './deps.js';

/** What the mobile numbers are made from: the codes, sign-in's gate and token writer, re-authentication. */
export interface PhoneParts extends FactoryArgs {
  users: UsersService;
  oneTimeCodes: OneTimeCodes;
  gate: SessionGate;
  sessionTokens: SignInTokens;
  loginLimits: LoginLimits;
  reauth: Reauthentication;
  activity: SecurityActivity;
}

/** The profile's mobile number, and sign-in by a code texted to it. */
export interface PhoneServices {
  phoneNumbers: PhoneNumberService;
  phoneCodes: PhoneCodeSignIn;
}

export function buildPhone(parts: PhoneParts): PhoneServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { limits } = deps;
  const phones = new PhoneNumbersRepo(db);
  // One guard per instance: its refusal watch counts this instance's refusals (the limits are shared).
  const guard = new SmsGuard({
    allowedCountries: config.sms.allowedCountries,
    limits: {
      ip: limits.smsIp,
      numberHour: limits.smsNumberHour,
      numberDay: limits.smsNumberDay,
      prefix: limits.smsPrefix,
      daily: limits.smsDaily,
    },
    logger: deps.log,
    observer: deps.metrics?.sms,
  });
  const texts = new PhoneCodeTexts(parts.oneTimeCodes, deps.sms, config.secondFactor.issuer);
  const phoneNumbers = new PhoneNumberService({
    db,
    phones,
    users: parts.users,
    codes: parts.oneTimeCodes,
    texts,
    sms: deps.sms,
    guard,
    reauth: parts.reauth,
    activity: parts.activity,
  });
  const phoneCodes = new PhoneCodeSignIn({
    db,
    codes: parts.oneTimeCodes,
    texts,
    phones,
    users: parts.users,
    sms: deps.sms,
    guard,
    allowedCountries: config.sms.allowedCountries,
    limits: parts.loginLimits,
    gate: parts.gate,
    sessionTokens: parts.sessionTokens,
    activity: parts.activity,
    window: { windows: new ReauthWindowsRepo(db), durationMs: config.reauthWindowMs },
  });
  return { phoneNumbers, phoneCodes };
}
