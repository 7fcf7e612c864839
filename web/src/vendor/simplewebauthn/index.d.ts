// The types of the module the service serves at /assets/vendor/simplewebauthn/index.js (src/web/assets.ts):
// @simplewebauthn/browser's own ESM build, so the compiled pages import it by a relative path.
export * from '@simplewebauthn/browser';
