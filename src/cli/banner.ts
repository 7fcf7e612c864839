import type { Command } from 'commander';
import { bannerState } from '../modules/promotions/banner-edits.js';
import type { BannerView } from '../modules/promotions/service.js';
import type { CommandEnvironment } from './environment.js';
import { printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

interface BannerAddOptions {
  title: string;
  imageUrl: string;
  linkUrl?: string;
  position?: string;
  startsAt?: string;
  endsAt?: string;
  json?: boolean;
}

function describeBanner(banner: BannerView): string[] {
  return [
    banner.id,
    String(banner.position),
    bannerState(banner),
    `${banner.starts_at ?? '-'} .. ${banner.ends_at ?? '-'}`,
    banner.title,
  ];
}

/** `accounts banner add|list|remove`. */
export function registerBannerCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const banner = program.command('banner').description('Manage the banners of promotions/banners');

  banner
    .command('add')
    .description('Add a banner; shown while starts-at <= now < ends-at (an omitted bound is open)')
    .requiredOption('--title <text>', 'the banner title (at most 255 characters)')
    .requiredOption('--image-url <url>', 'http(s) URL of the banner image')
    .option('--link-url <url>', 'what the banner opens: an http(s) URL or an app link of BANNER_LINK_SCHEMES')
    .option('--position <n>', 'display order, lowest first (default 0; ties by id)')
    .option(
      '--starts-at <iso>',
      'first instant shown, ISO 8601 with a zone (2026-12-01T00:00:00+09:00) or a date (UTC)',
    )
    .option('--ends-at <iso>', 'first instant no longer shown, as --starts-at')
    .option('--json', 'print the banner as JSON')
    .action(async (options: BannerAddOptions) => {
      const added = await withServices(({ promotions }) =>
        promotions.addBanner({
          title: options.title,
          image_url: options.imageUrl,
          link_url: options.linkUrl,
          position: options.position,
          starts_at: options.startsAt,
          ends_at: options.endsAt,
        }),
      );
      if (options.json) printJson(terminal, added);
      else printLine(terminal, `Added banner ${added.id} (${bannerState(added)}): ${added.title}`);
    });

  banner
    .command('list')
    .description('List every banner, past and scheduled ones too, in display order')
    .option('--json', 'print the banners as JSON')
    .action(async (options: { json?: boolean }) => {
      const banners = await withServices(({ promotions }) => promotions.allBanners());
      if (options.json) printJson(terminal, banners);
      else if (banners.length === 0) printLine(terminal, 'No banners.');
      else
        printColumns(terminal, [
          ['ID', 'POSITION', 'STATUS', 'WINDOW', 'TITLE'],
          ...banners.map(describeBanner),
        ]);
    });

  banner
    .command('update')
    .description("Change a banner's link, display order or schedule; an empty value clears it")
    .argument('<id>', 'the banner id (from banner list)')
    .option('--link-url <url>', "as banner add's; '' for no link")
    .option('--position <n>', 'display order, lowest first')
    .option('--starts-at <iso>', "as banner add's; '' for shown from now on")
    .option('--ends-at <iso>', "as banner add's; '' for shown until removed")
    .option('--json', 'print the banner as JSON')
    .action(async (id: string, options: Omit<BannerAddOptions, 'title' | 'imageUrl'>) => {
      const changed = await withServices(({ promotions }) =>
        promotions.updateBanner(id, {
          link_url: options.linkUrl,
          position: options.position,
          starts_at: options.startsAt,
          ends_at: options.endsAt,
        }),
      );
      if (options.json) printJson(terminal, changed);
      else printLine(terminal, `Changed banner ${changed.id} (${bannerState(changed)}): ${changed.title}`);
    });

  banner
    .command('remove')
    .description('Remove a banner')
    .argument('<id>', 'the banner id (from banner list)')
    .action(async (id: string) => {
      await withServices(({ promotions }) => promotions.removeBanner(id));
      printLine(terminal, `Removed banner ${id}.`);
    });
}
