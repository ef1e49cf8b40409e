import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const settingsSchema = z.object({
  /** The port the hub got last time: kept so the console URL, push URL and cookies stay the same. */
  port: z.number().int().min(1).max(65535).optional(),
  /** The desktop receiver: the receiver user whose notifications this desktop shows. */
  receiver: z
    .object({
      userId: z.string().min(1),
      name: z.string(),
      /** Receiver session token (a secret; this file is 0600 in the app's own folder, next to the database). */
      token: z.string().min(1).nullable().default(null),
      /** Stable client id sent as the stream device's `token`, so re-registering updates the same device. */
      deviceToken: z.string().min(16),
      deviceId: z.string().nullable().default(null),
      /** Last notification id shown: the stream resumes after it (Last-Event-ID). */
      lastEventId: z.string().nullable().default(null),
    })
    .optional(),
});

/** The desktop app's own settings (not the hub's): `desktop.json` in the userData folder. */
export type DesktopSettings = z.infer<typeof settingsSchema>;

/** Reads and writes the settings file; an unreadable or invalid file counts as empty. */
export interface SettingsFile {
  path: string;
  read(): DesktopSettings;
  /** Applies `change` to the current settings and writes them atomically; returns the new settings. */
  update(change: (current: DesktopSettings) => DesktopSettings): DesktopSettings;
}

/** The settings file at `file` (created on the first update, mode 0600). */
export function createSettingsFile(file: string): SettingsFile {
  const read = (): DesktopSettings => {
    try {
      const parsed = settingsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  };
  return {
    path: file,
    read,
    update(change) {
      const next = settingsSchema.parse(change(read()));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      fs.renameSync(tmp, file);
      return next;
    },
  };
}
