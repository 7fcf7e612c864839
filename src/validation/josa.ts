import { josa as withParticle } from 'es-hangul';

/**
 * The Korean particles the messages use after a name: `은/는`, `이/가`, `을/를`, `와/과`, `으로/로` (es-hangul's
 * own options, of which the messages need only these). The one place the messages get their particles from.
 */
export type JosaOption = '이/가' | '을/를' | '은/는' | '와/과' | '으로/로';

/** The word with the particle its last syllable takes (`프로필 주소` + `은/는` → `프로필 주소는`). */
export function josa(word: string, option: JosaOption): string {
  if (word.length === 0) return word;
  return withParticle(word, option);
}
