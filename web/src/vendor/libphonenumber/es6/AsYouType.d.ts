// The types of the module the service serves at /assets/vendor/libphonenumber/es6/AsYouType.js
// (src/web/assets.ts): libphonenumber-js's own ES module, which takes its metadata as an argument.
import type { AsYouType as CoreAsYouType } from 'libphonenumber-js/core';

declare const AsYouType: typeof CoreAsYouType;
export default AsYouType;
