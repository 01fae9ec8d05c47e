-- source: https://github.com/shin5ok/orm-with-pgadaptor/blob/0f4dcfbc6f3efbb04a8f161ce4fa0da5ae7d00ad/schemas-as-pgsql/30-create_items.sql
CREATE TABLE items (
  item_id varchar(36) NOT NULL,
  item_name varchar(64) NOT NULL,
  price INT NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  primary key(item_id)
) 
