/**
 * The Korean particle that follows a word, chosen by the word's last syllable: `은/는`, `이/가`, `을/를`,
 * `와/과`, `으로/로`. The one place the messages get their particles from, with es-hangul's signature
 * (`josa(word, '이/가')` → the word with its particle), so that library can stand in for this body unchanged.
 *
 * Like es-hangul, a word that does not end in a Hangul syllable (`ID`, `OS`) takes the form for a word
 * without a final consonant (`ID가`, read 아이디가).
 */
export type JosaOption = '이/가' | '을/를' | '은/는' | '와/과' | '으로/로';

const FIRST_SYLLABLE = 0xac00;
const LAST_SYLLABLE = 0xd7a3;
/** Final consonants (jongseong) per initial × medial block, ㄹ's index among them. */
const FINALS = 28;
const FINAL_RIEUL = 8;

/** The final consonant's index of the word's last syllable: 0 when none (or when it is not a syllable). */
function finalConsonant(word: string): number {
  const code = word.codePointAt(word.length - 1) ?? 0;
  if (code < FIRST_SYLLABLE || code > LAST_SYLLABLE) return 0;
  return (code - FIRST_SYLLABLE) % FINALS;
}

/** The particle alone (es-hangul's `josa.pick`). */
export function pickJosa(word: string, option: JosaOption): string {
  const [afterConsonant = '', afterVowel = ''] = option === '와/과' ? ['과', '와'] : option.split('/');
  const final = finalConsonant(word);
  // 으로 after a consonant, but 로 after ㄹ as after a vowel (서울로, 연필로).
  if (final === 0 || (option === '으로/로' && final === FINAL_RIEUL)) return afterVowel;
  return afterConsonant;
}

export function josa(word: string, option: JosaOption): string {
  if (word.length === 0) return word;
  return word + pickJosa(word, option);
}
