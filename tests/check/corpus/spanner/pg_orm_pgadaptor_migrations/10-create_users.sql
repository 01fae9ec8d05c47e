-- source: https://github.com/shin5ok/orm-with-pgadaptor/blob/0f4dcfbc6f3efbb04a8f161ce4fa0da5ae7d00ad/schemas-as-pgsql/10-create_users.sql
CREATE TABLE users (
  user_id varchar(36) primary key NOT NULL,
  name varchar(128) NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
