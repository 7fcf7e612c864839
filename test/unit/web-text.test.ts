import { describe, expect, it } from 'vitest';
import { passwordStrength } from '../../web/src/lib/password-strength.js';

describe('the password strength hint', () => {
  it('judges length first, then the account’s own names, then how much a guesser must try', () => {
    expect(passwordStrength('short1!')).toBe('too_short');
    expect(passwordStrength('minji@example.com', ['minji@example.com', 'minji'])).toBe('personal');
    expect(passwordStrength('password')).toBe('weak');
    expect(passwordStrength('12345678')).toBe('weak');
    expect(passwordStrength('qwertyuiop')).toBe('weak');
    expect(passwordStrength('aaaaaaaaaaaa')).toBe('weak');
    expect(passwordStrength('Quiet-Harbour-2731')).toBe('strong');
    expect(passwordStrength('correct horse battery staple')).toBe('strong');
  });
});
