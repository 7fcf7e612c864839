import { toString as qrCode } from 'qrcode';

/**
 * The URL as a QR code, an SVG document the pages can show as they are. Apart from lib/totp.ts: checking a
 * code (every sign-in with a second factor, the operator commands) never draws one, and qrcode is a
 * noticeable part of a command's start.
 */
export function qrCodeSvg(url: string): Promise<string> {
  return qrCode(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
