import { Router } from 'express';
import { z } from 'zod';
import { HubError } from '../../domain/errors.js';
import { parseBody } from '../../domain/validation.js';
import type { FcmSetting, SenderRegistry } from '../../delivery/sender-registry.js';
import { parseApnsSettings, type ApnsSettings } from '../../delivery/senders/apns-sender.js';
import { parseFcmServiceAccount } from '../../delivery/senders/fcm-sender.js';
import { parseVapidSubject, type VapidKeys } from '../../delivery/senders/webpush-sender.js';
import type { Store } from '../../store/index.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** GET shape of the APNs settings: the non-secret parts, and whether the key is set. */
const apnsJson = (s: ApnsSettings | undefined) => ({
  configured: s !== undefined,
  teamId: s?.teamId ?? null,
  keyId: s?.keyId ?? null,
  defaultTopic: s?.defaultTopic ?? null,
  environment: s?.environment ?? null,
  privateKeySet: s !== undefined,
});

/** GET shape of the FCM settings: the project and account, never the private key. */
const fcmJson = (s: FcmSetting | undefined) => ({
  configured: s !== undefined,
  projectId: s?.serviceAccount.project_id ?? null,
  clientEmail: s?.serviceAccount.client_email ?? null,
});

/**
 * Push service credentials (issue "Delivery" / "Operator settings"): `GET|PUT|DELETE
 * /api/settings/apns`, `GET|PUT|DELETE /api/settings/fcm`, `GET|PUT /api/settings/webpush`.
 * Secrets are validated on PUT (400 naming the field), stored, and never returned or logged.
 * A change takes effect for the next delivery.
 */
export function createSettingsRoutes({ store, senders }: { store: Store; senders: SenderRegistry }): Router {
  const router = Router();

  router.get('/apns', (_req, res) => {
    res.json(apnsJson(store.settings.get<ApnsSettings>('apns')));
  });
  router.put('/apns', async (req, res) => {
    const body: unknown = req.body ?? {};
    const current = store.settings.get<ApnsSettings>('apns');
    // The .p8 key may be left out to change only the other fields.
    const merged = isObject(body) && body.privateKey === undefined && current ? { ...body, privateKey: current.privateKey } : body;
    const settings = parseApnsSettings(merged);
    store.settings.set('apns', settings);
    await senders.reload('apns');
    res.json(apnsJson(settings));
  });
  router.delete('/apns', async (_req, res) => {
    store.settings.delete('apns');
    await senders.reload('apns');
    res.status(204).end();
  });

  router.get('/fcm', (_req, res) => {
    res.json(fcmJson(store.settings.get<FcmSetting>('fcm')));
  });
  router.put('/fcm', async (req, res) => {
    const body = parseBody(z.object({ serviceAccount: z.unknown() }), req.body);
    if (body.serviceAccount === undefined) {
      throw new HubError('missing_field', 'serviceAccount: upload the service account JSON from the Firebase console', {
        field: 'serviceAccount',
      });
    }
    const setting: FcmSetting = { serviceAccount: parseFcmServiceAccount(body.serviceAccount) };
    store.settings.set('fcm', setting);
    await senders.reload('fcm');
    res.json(fcmJson(setting));
  });
  router.delete('/fcm', async (_req, res) => {
    store.settings.delete('fcm');
    await senders.reload('fcm');
    res.status(204).end();
  });

  router.get('/webpush', (_req, res) => {
    const vapid = store.settings.get<VapidKeys>('webpush');
    res.json({ configured: vapid !== undefined, publicKey: vapid?.publicKey ?? null, subject: vapid?.subject ?? null });
  });
  router.put('/webpush', async (req, res) => {
    const body = parseBody(z.object({ subject: z.unknown() }), req.body);
    const vapid = store.settings.get<VapidKeys>('webpush');
    if (!vapid) throw new HubError('unavailable', 'the VAPID keys have not been generated yet');
    const updated = { ...vapid, subject: parseVapidSubject(body.subject) };
    store.settings.set('webpush', updated);
    await senders.reload('webpush');
    res.json({ configured: true, publicKey: updated.publicKey, subject: updated.subject });
  });

  return router;
}
