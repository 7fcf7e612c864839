-- Every authenticated request reads its account in one statement (docs/performance.md); user/get shows the
-- required documents whose current version the account has not agreed to. The versions each account agreed
-- to are kept on its row, `{"terms": [1, 2], ...}`, by a trigger on every agreement written (whichever code
-- writes it), and each instance keeps the current versions in memory, told of a publish by NOTIFY.
ALTER TABLE users ADD COLUMN agreed_consents jsonb NOT NULL DEFAULT '{}';

UPDATE users u SET agreed_consents = a.versions
FROM (
  SELECT user_id, jsonb_object_agg(key, versions) AS versions
  FROM (
    SELECT user_id, key, jsonb_agg(DISTINCT version ORDER BY version) AS versions
    FROM consent_records WHERE agreed GROUP BY user_id, key
  ) per_key
  GROUP BY user_id
) a
WHERE u.id = a.user_id;

-- An agreement adds its version to the account's list, once. A withdrawal changes nothing: as the records
-- did, a version once agreed to stays agreed for the pending check (the records keep the history).
CREATE FUNCTION consent_records_agreed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users
  SET agreed_consents = jsonb_set(agreed_consents, ARRAY[NEW.key],
    coalesce(agreed_consents -> NEW.key, '[]'::jsonb) || to_jsonb(NEW.version))
  WHERE id = NEW.user_id AND NOT coalesce(agreed_consents -> NEW.key @> to_jsonb(NEW.version), false);
  RETURN NULL;
END;
$$;

CREATE TRIGGER consent_records_agreed AFTER INSERT ON consent_records FOR EACH ROW WHEN (NEW.agreed)
  EXECUTE FUNCTION consent_records_agreed();

-- Every instance keeps the current versions and their titles in memory: a change to the documents or their
-- versions, by any process, tells them when it commits.
CREATE FUNCTION consent_documents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('consent_documents', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER consent_documents_changed AFTER INSERT OR UPDATE OR DELETE ON consent_documents
  FOR EACH STATEMENT EXECUTE FUNCTION consent_documents_changed();
CREATE TRIGGER consent_document_versions_changed AFTER INSERT OR UPDATE OR DELETE ON consent_document_versions
  FOR EACH STATEMENT EXECUTE FUNCTION consent_documents_changed();
