import { t } from './i18n.js';

/**
 * Shows the chosen picture before it is sent, from a blob: URL (the CSP allows blob: images, nothing else
 * outside this origin). The previous URL is released.
 */
export function previewPicture(input: HTMLInputElement, image: HTMLImageElement): void {
  let url: string | undefined;
  const name = document.getElementById(`${input.id}-name`);
  input.addEventListener('change', () => {
    if (url) URL.revokeObjectURL(url);
    const file = input.files?.[0];
    // The chosen file's name beside the page's own button (the native one, in the browser's language, is hidden).
    if (name) name.textContent = file ? file.name : t('file.none');
    if (!file) {
      image.hidden = true;
      url = undefined;
      return;
    }
    url = URL.createObjectURL(file);
    image.src = url;
    image.hidden = false;
  });
}

/** The chosen file, or undefined: an empty file input must not be sent as an empty part. */
export function chosenFile(input: HTMLInputElement): File | undefined {
  return input.files?.[0];
}
