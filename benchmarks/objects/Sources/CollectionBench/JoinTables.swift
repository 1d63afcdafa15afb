// The peers' schema (GRDB and raw SQLite alike): an owner table, and per
// collection a join table with the owner's id and a unique index that
// answers its reads — (owner, position) for the lists, (owner, value) for
// the set, (owner, key) for the map. A List of objects points at `item`
// rows by id. No foreign-key clauses: GRDB turns their checks on and raw
// SQLite leaves them off, which would make the two do different work.
let joinTableSchema = """
    CREATE TABLE owner (id INTEGER PRIMARY KEY);
    CREATE TABLE list_int (owner INTEGER NOT NULL, position INTEGER NOT NULL, value INTEGER NOT NULL);
    CREATE UNIQUE INDEX list_int_position ON list_int(owner, position);
    CREATE TABLE item (id INTEGER PRIMARY KEY, number INTEGER NOT NULL, name TEXT NOT NULL);
    CREATE TABLE list_item (owner INTEGER NOT NULL, position INTEGER NOT NULL, item INTEGER NOT NULL);
    CREATE UNIQUE INDEX list_item_position ON list_item(owner, position);
    CREATE TABLE set_int (owner INTEGER NOT NULL, value INTEGER NOT NULL);
    CREATE UNIQUE INDEX set_int_value ON set_int(owner, value);
    CREATE TABLE map_int (owner INTEGER NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL);
    CREATE UNIQUE INDEX map_int_key ON map_int(owner, key);
    """

/// A List of objects in order: the items' `number`, through the join table.
let itemsInOrderSQL = """
    SELECT item.* FROM list_item JOIN item ON item.id = list_item.item
    WHERE list_item.owner = ? ORDER BY list_item.position
    """

/// The position an append takes: one past the last, from the index.
let nextPositionSQL = "SELECT MAX(position) FROM list_int WHERE owner = ?"
