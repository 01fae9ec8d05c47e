-- source: https://github.com/GoogleCloudPlatform/cloud-spanner-samples/blob/90b33ba3fb7d7ac0d3c381ee06bdab2b70404300/gaming/schema/migrations/000002.sql
CREATE TABLE games (
	gameUUID string(36) NOT NULL,
	players ARRAY<STRING(36)> NOT NULL,
	winner STRING(36),
	created TIMESTAMP,
	finished TIMESTAMP
) PRIMARY KEY (gameUUID);

ALTER TABLE players
	ADD FOREIGN KEY (current_game) REFERENCES games (gameUUID);
