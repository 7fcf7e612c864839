-- Account deletion forgets the address in every mail sent to it (OutboxRepo.forgetAddress): an index on the
-- address as compared, so that statement never scans the whole outbox.
CREATE INDEX mail_outbox_lower_to_address_idx ON mail_outbox (lower(to_address));
