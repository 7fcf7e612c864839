import type { ConsolePromotions } from '../account/console-promotions/promotions.js';
import type { SecondFactorSignIn } from '../account/second-factor/sign-in.js';
import type { MediaReferences } from '../modules/images/orphan-sweep.js';
import type { DeliveryWake } from '../modules/webhooks/delivery-loop.js';
import type { AccessTokenServices } from './access-tokens.js';
import type { AccountFlows } from './account.js';
import type { ConsoleContentServices } from './console-content.js';
import type { ConsoleUserServices } from './console-users.js';
import type { DeletionServices } from './deletion.js';
import type { EmailCodeServices } from './email-codes.js';
import type { EntityServices } from './entities.js';
import type { FactorSettingsServices } from './factors.js';
import type { GuardianServices } from './guardian.js';
import type { IdentityServices } from './identity.js';
import type { NotificationServices } from './notifications.js';
import type { OperatorToolServices } from './operator.js';
import type { PhoneServices } from './phone.js';
import type { DataExportServices } from './privacy.js';
import type { SecurityLogServices } from './security.js';
import type { SignInServices } from './sign-in.js';
import type { StaffServices } from './staff.js';
import type { ConsoleWebhookServices, WebhookServices } from './webhooks.js';

/**
 * Every service of one instance, built from real repositories: what endpoints, the operator commands and
 * tests are made from. Each member is declared by the factory that builds it (go to its definition).
 */
export interface Services
  extends Pick<SecurityLogServices, 'securityEvents' | 'activityCursors' | 'activity'>,
    Pick<
      EntityServices,
      | 'configuredProviders'
      | 'users'
      | 'operations'
      | 'tokens'
      | 'hasher'
      | 'providers'
      | 'images'
      | 'consents'
      | 'consentReminders'
      | 'promotions'
      | 'feedCursors'
      | 'posts'
      | 'idempotency'
    >,
    Pick<NotificationServices, 'devices' | 'notifications'>,
    Pick<SignInServices, 'signIn'>,
    EmailCodeServices,
    PhoneServices,
    Pick<DeletionServices, 'eraser' | 'scheduledDeletions'>,
    Pick<
      AccountFlows,
      | 'signUp'
      | 'reauth'
      | 'providerLinks'
      | 'profile'
      | 'profilePictures'
      | 'verification'
      | 'passwordReset'
      | 'deletion'
    >,
    FactorSettingsServices,
    DataExportServices,
    Pick<IdentityServices, 'identity' | 'identityVerifier'>,
    Pick<GuardianServices, 'guardianRequests' | 'guardianConsents' | 'guardianDeadline' | 'guardianIdentity'>,
    WebhookServices,
    OperatorToolServices,
    AccessTokenServices,
    StaffServices,
    ConsoleUserServices,
    ConsoleContentServices,
    ConsoleWebhookServices {
  /** The second step of a sign-in (or of a deletion's cancel). */
  secondFactorSignIn: SecondFactorSignIn;
  /** Whether SECRETS_KEY is set: without it the second factor's routes answer 503. */
  secondFactorConfigured: boolean;
  /** Told after a commit that wrote account events: the delivery loop runs a pass at once. */
  deliveryWake: DeliveryWake;
  /** Every table that references stored media: files none of them references are swept. */
  mediaReferences: MediaReferences[];
  /** The console's banners and inspirers, on the operator commands' promotions service. */
  consolePromotions: ConsolePromotions;
}
