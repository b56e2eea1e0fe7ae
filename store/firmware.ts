import type { Pool } from './pg/pool';
import { withPostgres } from './pg/unavailable';
import type { Firmware } from '../common/firmware';

export type { Firmware };

const COLUMNS = `id, project_id AS "projectId", name, version, size::float8 AS size, sha256,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`;

/** Firmware records in PostgreSQL (table firmware, migration 0004), beside the history the service keeps there. */
export function createFirmwareStore(pool: Pool) {
  return {
    async create(f: Firmware): Promise<Firmware> {
      await withPostgres(() =>
        pool.query('INSERT INTO firmware (id, project_id, name, version, size, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          f.id,
          f.projectId,
          f.name,
          f.version,
          f.size,
          f.sha256,
          f.createdAt,
        ]),
      );
      return f;
    },

    async get(id: string): Promise<Firmware | null> {
      const { rows } = await withPostgres(() => pool.query<Firmware>(`SELECT ${COLUMNS} FROM firmware WHERE id = $1`, [id]));
      return rows[0] ?? null;
    },

    /** A project's images, oldest first. */
    async list(projectId: string): Promise<Firmware[]> {
      const { rows } = await withPostgres(() =>
        pool.query<Firmware>(`SELECT ${COLUMNS} FROM firmware WHERE project_id = $1 ORDER BY created_at, id`, [projectId]),
      );
      return rows;
    },

    async remove(id: string): Promise<void> {
      await withPostgres(() => pool.query('DELETE FROM firmware WHERE id = $1', [id]));
    },
  };
}

export type FirmwareStore = ReturnType<typeof createFirmwareStore>;
