-- Text sorts and compares byte by byte, and lower() and ILIKE fold ASCII
-- letters alone, as on SQLite, whatever locale the database was made with
-- (a plain `createdb` on Debian gives C.UTF-8, a managed service often
-- en_US.UTF-8): every text column of the schema takes the "C" collation,
-- and expressions over columns follow it. A database made with the C
-- locale compared so already; here its indexes on text are rebuilt, once.
-- A text column added by a later migration says COLLATE "C" itself (a test
-- of the nodes suite holds every one to it).
--
-- A column a trigger names (`UPDATE OF name`) cannot change its type while
-- the trigger stands: the schema's triggers are set aside and made again,
-- as they were, around the change.
DO $$
DECLARE
    trig record;
    col record;
    definition text;
    triggers text[] := '{}';
BEGIN
    FOR trig IN
        SELECT t.tgname, t.tgrelid::regclass AS tbl, pg_get_triggerdef(t.oid) AS def
        FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND NOT t.tgisinternal
        ORDER BY t.oid
    LOOP
        triggers := triggers || trig.def;
        EXECUTE format('DROP TRIGGER %I ON %s', trig.tgname, trig.tbl);
    END LOOP;
    FOR col IN
        SELECT a.attrelid::regclass AS tbl, a.attname AS name,
               format_type(a.atttypid, a.atttypmod) AS typ
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema()
          AND c.relkind IN ('r', 'p')
          AND a.attnum > 0
          AND NOT a.attisdropped
          AND a.attcollation <> 0
          AND a.attcollation <> 'pg_catalog."C"'::regcollation
        ORDER BY 1, 2
    LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE %s COLLATE "C"', col.tbl, col.name, col.typ);
    END LOOP;
    FOREACH definition IN ARRAY triggers
    LOOP
        EXECUTE definition;
    END LOOP;
END $$;
