/** The package's own check (a scan of the decoded array); the tests compare ours with it. */
declare module 'fxa-common-password-list' {
  const list: { test(password: string): boolean };
  export default list;
}
