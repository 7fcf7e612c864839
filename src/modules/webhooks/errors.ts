/** A webhook request the operator must change (a refused target, an unknown event type): one line. */
export class WebhookRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

/** Why a target cannot be delivered to: the line `webhook add` prints, and what a delivery records. */
export class TargetRefusedError extends WebhookRequestError {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}
