-- source: https://github.com/shin5ok/orm-with-pgadaptor/blob/0f4dcfbc6f3efbb04a8f161ce4fa0da5ae7d00ad/schemas-as-pgsql/20-create_user_items.sql
CREATE TABLE user_items (
  user_id varchar(36) NOT NULL,
  item_id varchar(36) NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  primary key (user_id, item_id)
) INTERLEAVE IN PARENT users ON DELETE CASCADE;
