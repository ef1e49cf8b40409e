import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Icon } from '../../console/components/Icon';

/** The app's mark: the console's bell on the accent square, so both read as one product. */
export function BrandMark({ size = 30 }: { size?: number }) {
  return (
    <span className="brand-mark" aria-hidden="true" style={{ width: size, height: size }}>
      <Icon name="bell" size={Math.round(size * 0.53)} />
    </span>
  );
}

/** Three vertical dots (the "more" icon of phone apps). */
function MoreIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false">
      <circle cx="12" cy="5" r="2" />
      <circle cx="12" cy="12" r="2" />
      <circle cx="12" cy="19" r="2" />
    </svg>
  );
}

/** The sticky bar at the top: brand or back button, the page title, status, and the ⋮ menu. */
export function AppBar({ title, back, status, menu }: { title: string; back?: { label: string; onClick: () => void }; status?: ReactNode; menu?: MenuItem[] }) {
  return (
    <header className="appbar">
      <div className="appbar-inner">
        {back ? (
          <button type="button" className="icon-button appbar-back" aria-label={back.label} onClick={back.onClick}>
            <Icon name="arrowLeft" size={20} />
          </button>
        ) : (
          <BrandMark />
        )}
        <h1 className="appbar-title">{title}</h1>
        {status}
        {menu && <MoreMenu items={menu} />}
      </div>
    </header>
  );
}

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
}

/**
 * The ⋮ button and its menu (WAI-ARIA menu button pattern): opens with a click, Enter or the
 * arrow keys, moves with arrows, closes with Escape, Tab or a click elsewhere, and gives focus back.
 */
export function MoreMenu({ items }: { items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();

  const focusItem = (i: number) => {
    const all = menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]');
    if (!all?.length) return;
    all[(i + all.length) % all.length]?.focus();
  };
  useEffect(() => {
    if (!open) return;
    focusItem(0);
    const onDown = (e: PointerEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  const close = (refocus = true) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'ArrowDown') focusItem(at + 1);
    else if (e.key === 'ArrowUp') focusItem(at - 1);
    else if (e.key === 'Home') focusItem(0);
    else if (e.key === 'End') focusItem(all.length - 1);
    else if (e.key === 'Escape') close();
    else if (e.key === 'Tab') close(false);
    else return;
    e.preventDefault();
  };

  return (
    <div className="menu-anchor">
      <button
        ref={button}
        type="button"
        className="icon-button appbar-more"
        aria-label="More"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        <MoreIcon />
      </button>
      {open && (
        <div ref={menu} id={id} className="menu" role="menu" aria-label="More" onKeyDown={onMenuKey}>
          {items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className={item.danger ? 'menu-item menu-item-danger' : 'menu-item'}
              onClick={() => {
                close(false);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
