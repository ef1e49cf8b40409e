import fs from 'node:fs';
import path from 'node:path';

/**
 * Quotes one argument of a desktop entry's `Exec` key (Desktop Entry Specification, "The Exec
 * key"): an argument with reserved characters is double-quoted with `"`, `` ` ``, `$` and `\`
 * escaped by a backslash; then the string escape rule of the file format doubles every
 * backslash (it "is applied before the quoting rule" when the file is read). `%` is doubled.
 */
export function quoteExecArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%');
  if (!/[\s"'\\><~|&;$*?#()`]/.test(escaped)) return escaped;
  const quoted = `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\');
}

/**
 * Start at login on Linux, where Electron's app.setLoginItemSettings does nothing: an XDG
 * autostart entry, `$XDG_CONFIG_HOME/autostart/<id>.desktop` (XDG Autostart Specification).
 */
export function linuxAutostart(options: {
  /** `$XDG_CONFIG_HOME`, or `~/.config`. */
  configHome: string;
  /** File name without `.desktop`, e.g. `org.pushhub.desktop`. */
  id: string;
  name: string;
  /** The executable (the AppImage's path when run from one: `$APPIMAGE`). */
  exec: string;
  args: string[];
}) {
  const file = path.join(options.configHome, 'autostart', `${options.id}.desktop`);
  const entry = [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${options.name}`,
    'Comment=Self-hosted push hub (starts in the tray)',
    `Exec=${[options.exec, ...options.args].map(quoteExecArg).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
  return {
    file,
    /** The entry this app would write. */
    entry,
    isEnabled(): boolean {
      return fs.existsSync(file);
    },
    setEnabled(enabled: boolean): void {
      if (enabled) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, entry);
      } else {
        fs.rmSync(file, { force: true });
      }
    },
  };
}
