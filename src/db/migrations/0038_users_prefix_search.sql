-- `accounts user list --query` finds users by the start of an email, username or slug, case-insensitively:
-- `lower(x) LIKE 'prefix%'`. The unique lower(x) indexes (migration 0001) serve that only under the C
-- collation; these serve it under any, as text_pattern_ops compares by bytes. An id prefix is a range of the
-- primary key and needs nothing more.
CREATE INDEX users_email_lower_prefix_idx ON users (lower(email) text_pattern_ops);
CREATE INDEX users_username_lower_prefix_idx ON users (lower(username) text_pattern_ops);
CREATE INDEX users_slug_lower_prefix_idx ON users (lower(slug) text_pattern_ops);

-- The HMAC key of the user list's cursors, one for every instance (a data directory draws its own).
INSERT INTO service_secrets (name, secret)
VALUES ('user_list_cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
