import { Counter, type Registry } from 'prom-client';

/** Why a code's SMS was refused: the number, or a limit (labels from this fixed set only). */
export type SmsRefusalReason =
  | 'invalid'
  | 'not_mobile'
  | 'country'
  | 'number_hour'
  | 'number_day'
  | 'ip'
  | 'prefix'
  | 'daily';

/** What the SMS sender and its guard tell the metrics. */
export interface SmsObserver {
  sent(): void;
  refused(reason: SmsRefusalReason): void;
}

/** `sms_sent_total` and `sms_refused_total{reason}`. */
export function registerSmsMetrics(registry: Registry): SmsObserver {
  const registers = [registry];
  const sent = new Counter({
    name: 'sms_sent_total',
    help: 'Text messages the gateway accepted (SOLAPI, or the development log).',
    registers,
  });
  const refused = new Counter({
    name: 'sms_refused_total',
    help: 'Code messages refused before sending, by reason (the number, or the limit it hit).',
    labelNames: ['reason'],
    registers,
  });
  return { sent: () => sent.inc(), refused: (reason) => refused.inc({ reason }) };
}
