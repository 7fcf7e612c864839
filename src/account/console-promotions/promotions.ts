import { ForbiddenError, ValidationError } from '../../errors.js';
import type { ValidatedImage } from '../../modules/images/probe.js';
import type {
  BannerInput,
  BannerListItem,
  BannerView,
  InspirerSummary,
  InspirerUserView,
  PromotionsService,
} from '../../modules/promotions/service.js';
import { roleCan } from '../../modules/staff/permissions.js';
import { maskEmail } from '../console-users/masking.js';
import type { StaffActor, StaffGate } from '../console-users/staff-access.js';

/** What the console's content pages are made from: the operators' own promotions service, and the gate. */
export interface ConsolePromotionsDeps {
  /** The service `accounts banner` and `accounts inspirer` call: one set of rules for both. */
  promotions: Pick<
    PromotionsService,
    | 'bannerPage'
    | 'addBanner'
    | 'updateBanner'
    | 'removeBanner'
    | 'inspirerPage'
    | 'addInspirer'
    | 'removeInspirer'
  >;
  /** The user an operator's reference (id, email or username) names; a NotFoundError otherwise. */
  findUser(reference: string): Promise<{ id: string }>;
  gate: StaffGate;
}

/** An inspirer as the console lists one: the email masked, like every list of people in the console. */
export type ConsoleInspirer = InspirerSummary;

/**
 * Banners and inspirers for the console: the promotions service's own methods (the operator commands call
 * the same ones), behind the staff's permissions. A change is one access record: a banner's touches no
 * one's data (no subject; the banner in `detail`), an inspirer's names the user it made or unmade one.
 */
export class ConsolePromotions {
  constructor(private readonly deps: ConsolePromotionsDeps) {}

  /** Banners hold nobody's data: reading them is not recorded. */
  bannerPage(
    actor: StaffActor,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ banners: BannerListItem[]; next_cursor: string | null }> {
    if (!roleCan(actor.role, 'content.read')) return Promise.reject(new ForbiddenError());
    return this.deps.promotions.bannerPage(cursor, limit);
  }

  /** With an upload (`image`) the banner shows the stored image; without one, `image_url` (as the command). */
  async addBanner(
    actor: StaffActor,
    input: BannerInput,
    image: ValidatedImage | undefined,
  ): Promise<BannerView> {
    if (image === undefined && (input.image_url ?? '').trim() === '') {
      throw new ValidationError({ image: [{ rule: 'required' }] });
    }
    return this.bannerChange(actor, 'banner.create', null, () =>
      this.deps.promotions.addBanner(input, image),
    );
  }

  updateBanner(actor: StaffActor, id: string, input: BannerInput): Promise<BannerView> {
    return this.bannerChange(actor, 'banner.update', id, () => this.deps.promotions.updateBanner(id, input));
  }

  async removeBanner(actor: StaffActor, id: string): Promise<{ removed: true }> {
    await this.bannerChange(actor, 'banner.delete', id, () => this.deps.promotions.removeBanner(id));
    return { removed: true };
  }

  /** The inspirers by username, emails masked; a list of people, so it is recorded as a search is. */
  inspirerPage(actor: StaffActor, cursor: string | undefined, limit: number) {
    return this.deps.gate.run(
      actor,
      { permission: 'content.read', action: 'inspirers.view', subjectId: null, reasonRequired: false },
      async () => {
        const page = await this.deps.promotions.inspirerPage(cursor, limit);
        const inspirers: ConsoleInspirer[] = page.inspirers.map((user) => ({
          id: user.id,
          email: maskEmail(user.email),
          username: user.username,
          disabled_at: user.disabled_at,
        }));
        return { inspirers, next_cursor: page.next_cursor };
      },
      (page) => ({ rows: page.inspirers.length }),
    );
  }

  /** Marks the user an operator names (id, email or username) as an inspirer: recorded with that user. */
  addInspirer(actor: StaffActor, reference: string, reason?: string): Promise<InspirerUserView> {
    return this.inspirerChange(actor, 'user.inspirer.add', reference, reason, (user) =>
      this.deps.promotions.addInspirer(user),
    );
  }

  removeInspirer(actor: StaffActor, reference: string, reason?: string): Promise<InspirerUserView> {
    return this.inspirerChange(actor, 'user.inspirer.remove', reference, reason, (user) =>
      this.deps.promotions.removeInspirer(user),
    );
  }

  private bannerChange<T>(actor: StaffActor, action: string, id: string | null, work: () => Promise<T>) {
    return this.deps.gate.run(
      actor,
      { permission: 'content.write', action, subjectId: null, reasonRequired: false },
      work,
      (result) => {
        const bannerId = id ?? (result as { id?: string }).id;
        return bannerId === undefined ? undefined : { banner_id: bannerId };
      },
    );
  }

  private async inspirerChange(
    actor: StaffActor,
    action: string,
    reference: string,
    reason: string | undefined,
    work: (userId: string) => Promise<InspirerUserView>,
  ): Promise<InspirerUserView> {
    // The user first, so the record names whose flag changed (an unknown user is a 404, nobody touched).
    const { id } = await this.deps.findUser(reference);
    return this.deps.gate.run(
      actor,
      { permission: 'content.write', action, subjectId: id, reason, reasonRequired: false },
      () => work(id),
    );
  }
}
