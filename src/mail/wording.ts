/** How one mail kind reads in one language (templates.ts renders it). */
export interface Wording {
  /** The link's lifetime is told in days rather than hours or minutes. */
  inDays?: boolean;
  subject: string;
  greeting: (name: string) => string;
  lead: string;
  action: string;
  expiry: (duration: string) => string;
  ignore: string;
}
