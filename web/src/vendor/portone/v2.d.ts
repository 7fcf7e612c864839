/**
 * The part of @portone/browser-sdk/v2 the pages call (web/src/lib/portone.ts; its ESM build is served as
 * /assets/vendor/portone/v2.js by src/web/assets.ts; tsc compiles the pages without a bundler).
 */
export interface IdentityVerificationRequest {
  storeId: string;
  channelKey: string;
  identityVerificationId: string;
  /** Where a phone's browser returns after PortOne's page (redirect flow). */
  redirectUrl?: string;
}

/** What the window answers: `code` and `message` when it did not complete. */
export interface IdentityVerificationResponse {
  transactionType?: string;
  identityVerificationId: string;
  identityVerificationTxId?: string;
  code?: string;
  message?: string;
}

export declare function requestIdentityVerification(
  request: IdentityVerificationRequest,
): Promise<IdentityVerificationResponse | undefined>;
