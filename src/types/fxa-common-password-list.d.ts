/** Mozilla's common-password list, incrementally encoded (one entry a line), decoded by incremental-encoder. */
declare module 'fxa-common-password-list/src/encoded-passwords.js' {
  const encoded: string;
  export default encoded;
}

/** The decoder the list ships with: each line is the shared-prefix length and the rest of the entry. */
declare module 'incremental-encoder' {
  const encoder: { Decoder: new () => { decode(lines: string[]): string[] } };
  export default encoder;
}

/** The package's own check (a scan of the decoded array); the tests compare ours with it. */
declare module 'fxa-common-password-list' {
  const list: { test(password: string): boolean };
  export default list;
}
