-- Mails held back by the per-address cap (RATE_LIMIT_MAIL_ADDRESS): an address gets at most so many mails a
-- window, and what comes after is kept here, without its body (which may hold a link), until the window
-- is over; then one summary mail lists them and the rows go. `due_at` is the end of the address's window.
CREATE TABLE mail_folds (
  id uuid PRIMARY KEY,
  to_address text NOT NULL,
  kind text NOT NULL,
  locale text NOT NULL,
  subject text NOT NULL,
  folded_at timestamptz NOT NULL DEFAULT now(),
  due_at timestamptz NOT NULL
);

-- The summaries' pass finds the due addresses on this index, and each address's folds on the next (which
-- account deletion also uses to forget an address).
CREATE INDEX mail_folds_due_at_idx ON mail_folds (due_at);
CREATE INDEX mail_folds_lower_to_address_idx ON mail_folds (lower(to_address), due_at);
