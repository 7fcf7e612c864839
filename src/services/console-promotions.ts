import { ConsolePromotions } from '../account/console-promotions/promotions.js';
import { type AccessRecorder, StaffGate } from '../account/console-users/staff-access.js';
import type { PromotionsService } from '../modules/promotions/service.js';
import type { UserOperationsService } from '../modules/users/operator-service.js';

/** What the console's content is made from: the services the operator commands call, and the records. */
export interface ConsolePromotionsParts {
  promotions: PromotionsService;
  operations: UserOperationsService;
  recorder: AccessRecorder;
}

/** The console's banners and inspirers, on the operator commands' own promotions service. */
export function buildConsolePromotions(parts: ConsolePromotionsParts): ConsolePromotions {
  return new ConsolePromotions({
    promotions: parts.promotions,
    findUser: (reference) => parts.operations.find(reference),
    gate: new StaffGate(parts.recorder),
  });
}
