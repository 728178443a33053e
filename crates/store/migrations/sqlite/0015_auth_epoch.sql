-- One number that changes whenever anything a request's principal is made
-- of changes: a user, a key pair, a role or an action, whichever process
-- wrote it (the server, the command line, a sync round). A verified
-- credential is remembered only under the number it was verified at.
CREATE TABLE auth_epoch (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    epoch INTEGER NOT NULL
) STRICT;
INSERT INTO auth_epoch (id, epoch) VALUES (1, 0);

CREATE TRIGGER auth_epoch_users_insert AFTER INSERT ON users BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_users_update AFTER UPDATE ON users BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_users_delete AFTER DELETE ON users BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_key_pairs_insert AFTER INSERT ON key_pairs BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_key_pairs_update AFTER UPDATE ON key_pairs BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_key_pairs_delete AFTER DELETE ON key_pairs BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_roles_insert AFTER INSERT ON user_roles BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_roles_update AFTER UPDATE ON user_roles BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_roles_delete AFTER DELETE ON user_roles BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_actions_insert AFTER INSERT ON user_actions BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_actions_update AFTER UPDATE ON user_actions BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
CREATE TRIGGER auth_epoch_user_actions_delete AFTER DELETE ON user_actions BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
