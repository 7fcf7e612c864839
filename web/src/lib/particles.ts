/** 받침 of the syllable `char` (undefined for a character that is not a Hangul syllable or a digit). */
function hasFinalConsonant(char: string): { final: boolean; rieul: boolean } | undefined {
  const code = char.charCodeAt(0) - 0xac00;
  if (code >= 0 && code <= 11171) return { final: code % 28 !== 0, rieul: code % 28 === 8 };
  // Digits are read as Sino-Korean numbers: 영 일 이 삼 사 오 육 칠 팔 구.
  const digit = '0123456789'.indexOf(char);
  if (digit >= 0) return { final: '013678'.includes(char), rieul: '178'.includes(char) };
  return undefined;
}

/** A placeholder pair and the forms it stands for: after a final consonant, after none. */
const PLACEHOLDERS: ReadonlyArray<[string, string, string]> = [
  ['은(는)', '은', '는'],
  ['이(가)', '이', '가'],
  ['을(를)', '을', '를'],
  ['과(와)', '과', '와'],
  ['(으)로', '으로', '로'],
];

/**
 * A Korean message with each `은(는)`-style placeholder replaced by the particle its word takes. The API
 * writes its field messages with the right particles; a message from an older server may still carry the
 * placeholders, which read as machine-made, so the page settles them the same way.
 */
export function settleParticles(text: string): string {
  let settled = text;
  for (const [placeholder, afterFinal, afterVowel] of PLACEHOLDERS) {
    settled = settled.replace(new RegExp(`(.)${placeholder.replace(/[()]/g, '\\$&')}`, 'g'), (_, before) => {
      const sound = hasFinalConsonant(before as string);
      if (!sound) return `${before}${afterFinal}`;
      // (으)로 takes 로 after ㄹ as after a vowel.
      const final = placeholder === '(으)로' ? sound.final && !sound.rieul : sound.final;
      return `${before}${final ? afterFinal : afterVowel}`;
    });
  }
  return settled;
}
