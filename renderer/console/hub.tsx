import { createContext, useContext, type ReactNode } from 'react';
import type { ConsoleInfo } from './api';

const HubContext = createContext<ConsoleInfo | undefined>(undefined);

export function HubInfoProvider({ info, children }: { info: ConsoleInfo | undefined; children: ReactNode }) {
  return <HubContext.Provider value={info}>{children}</HubContext.Provider>;
}

export const useHubInfo = () => useContext(HubContext);

/** The address senders use: PUSHHUB_PUBLIC_URL when set, else the address this page came from. */
export function useBaseUrl(): string {
  const info = useContext(HubContext);
  return (info?.publicUrl ?? window.location.origin).replace(/\/+$/, '');
}
