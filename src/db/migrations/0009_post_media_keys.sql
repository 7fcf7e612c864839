-- Orphan media sweep over post images: which stored files a post still references, asked
-- for a batch of keys at a time, on an index rather than a scan of every post. A post's images are a JSON
-- array of pictures, each with its storage `keys`; the expression flattens them into one array of keys.
CREATE INDEX posts_image_keys_idx ON posts USING gin ((jsonb_path_query_array(images, '$[*].keys[*]')));
