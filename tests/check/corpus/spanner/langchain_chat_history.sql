-- source: https://github.com/googleapis/langchain-google-spanner-python/blob/0b38fa5248d011204ee90ce9a9996f359e8c391b/src/langchain_google_spanner/chat_message_history.py
-- extracted from the google_schema Python f-string in SpannerChatMessageHistory._create_table_if_not_exists; {self.table_name} replaced by its default value message_store
CREATE TABLE IF NOT EXISTS message_store (
                            id STRING(36) DEFAULT (GENERATE_UUID()),
                            created_at TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
                            session_id STRING(MAX) NOT NULL,
                            message JSON NOT NULL,
                         ) PRIMARY KEY (session_id, created_at ASC, id);
