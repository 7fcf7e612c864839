#!/usr/bin/env bash
# Runs the mutation run in stages: each stage mutates a few files with the tests written for them, so a
# mutant of what a module computes when loaded (which needs every chosen test, freshly loaded) costs one
# or two files, not the whole set. Each stage's report is kept as reports/mutation/<stage>.json.
# Usage: test/mutation/stages.sh [stage ...]   (no argument: every stage)
# STRYKER_FLAGS adds options to each run, e.g. STRYKER_FLAGS='--concurrency 1' on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

declare -A MUTATE TESTS
MUTATE[address-guard]='src/modules/webhooks/address-guard.ts'
TESTS[address-guard]='test/unit/webhook-targets.test.ts,test/unit/address-guard.test.ts'
MUTATE[age]='src/lib/age.ts'
TESTS[age]='test/unit/age.test.ts,test/unit/identity-age.test.ts,test/unit/age-edges.test.ts'
MUTATE[passwords]='src/lib/passwords.ts,src/lib/legacy-bcrypt.ts'
TESTS[passwords]='test/unit/passwords.test.ts,test/unit/legacy-bcrypt.test.ts,test/unit/password-hash-edges.test.ts,test/unit/password-hashing-pool.test.ts,test/unit/legacy-bcrypt-fault.test.ts'
MUTATE[codes]='src/lib/recovery-codes.ts,src/lib/secret-box.ts,src/lib/totp.ts,src/lib/derived-key.ts'
TESTS[codes]='test/unit/second-factor-codes.test.ts,test/unit/secret-box-edges.test.ts'
MUTATE[tokens]='src/lib/tokens.ts,src/lib/time.ts,src/lib/signed-cursor.ts,src/lib/username-skeleton.ts'
TESTS[tokens]='test/unit/tokens-and-ids.test.ts,test/unit/signed-cursor.test.ts,test/unit/signed-cursor-shape.test.ts,test/unit/feed-cursor.test.ts,test/unit/username-skeleton.test.ts,test/unit/time.test.ts'
MUTATE[admission]='src/account/sign-in/admission.ts,src/account/sign-in/login-attempts.ts'
TESTS[admission]='test/unit/session-admission.test.ts,test/unit/login-attempts.test.ts,test/integration/login-account-limit.test.ts'
MUTATE[address-cap]='src/mail/address-cap.ts'
TESTS[address-cap]='test/unit/address-cap.test.ts,test/integration/mail-cap.test.ts'
# Sign-in and re-authentication: unit tests hand the services fakes of their dependencies; one integration
# file each checks the same rules through HTTP.
MUTATE[session-gate]='src/account/sign-in/session-gate.ts,src/account/sign-in/tokens.ts'
TESTS[session-gate]='test/unit/session-gate.test.ts,test/unit/sign-in-tokens.test.ts,test/integration/session-gate.test.ts'
MUTATE[sign-in]='src/account/sign-in/service.ts,src/account/sign-in/rules.ts,src/account/sign-in/routes.ts'
TESTS[sign-in]='test/unit/sign-in-service.test.ts,test/unit/sign-in-provider.test.ts,test/integration/login-email.test.ts,test/integration/providers.test.ts'
MUTATE[reauth-rules]='src/account/reauth/policy.ts,src/account/reauth/rules.ts,src/account/reauth/routes.ts'
TESTS[reauth-rules]='test/unit/reauth-policy.test.ts,test/integration/reauth-window.test.ts'
MUTATE[reauth-service]='src/account/reauth/service.ts'
TESTS[reauth-service]='test/unit/reauth-service.test.ts,test/unit/reauth-service-passwordless.test.ts,test/integration/reauthentication.test.ts'
ORDER=(address-guard age passwords codes tokens admission address-cap session-gate sign-in reauth-rules reauth-service)

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=("${ORDER[@]}")
for stage in "${stages[@]}"; do
  echo "== $stage"
  MUTATION_TESTS="${TESTS[$stage]}" npx stryker run --mutate "${MUTATE[$stage]}" --reporters clear-text,json ${STRYKER_FLAGS:-}
  mv reports/mutation/mutation.json "reports/mutation/$stage.json"
done
