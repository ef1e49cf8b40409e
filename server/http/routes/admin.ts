import { Router } from 'express';
import { z } from 'zod';
import { toIso } from '../../domain/clock.js';
import { HubError } from '../../domain/errors.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../domain/passwords.js';
import { parseBody, wellFormedString } from '../../domain/validation.js';
import type { AppRecord } from '../../store/app-store.js';
import type { DeviceRecord } from '../../store/device-store.js';
import type { GroupRecord } from '../../store/group-store.js';
import type { DeliveryRecord, NotificationRecord } from '../../store/notification-store.js';
import type { Store } from '../../store/index.js';
import type { UserRecord } from '../../store/user-store.js';

// Names are stored and shown: made well-formed first, so SQLite keeps the text that was answered.
const name = wellFormedString().trim().min(1).max(100);
const password = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(1024);
/** Usernames are what receivers type on a phone: letters, digits, dot, dash, underscore, @. */
export const username = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'letters, digits and . _ @ - only, at most 64 characters');
const userIds = z.array(z.string().min(1)).max(10_000);

const createAppBody = z.object({ name });
const createUserBody = z.object({ name, username, password });
const updateUserBody = z.object({ name: name.optional(), password: password.optional() });
const createGroupBody = z.object({ name, userIds: userIds.optional() });
const membersBody = z.object({ userIds });
const notificationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().min(1).optional(),
  appId: z.string().min(1).optional(),
  userId: z.string().min(1).optional(),
});

/** API shape of an app (never includes the key). */
export const appJson = (a: AppRecord) => ({
  id: a.id,
  name: a.name,
  keyPrefix: a.keyPrefix,
  createdAt: toIso(a.createdAt),
  lastUsedAt: toIso(a.lastUsedAt),
});

/** API shape of a receiver account. */
export const userJson = (u: UserRecord) => ({
  id: u.id,
  name: u.name,
  username: u.username,
  userKey: u.userKey,
  createdAt: toIso(u.createdAt),
});

/** API shape of a User Group. */
export const groupJson = (g: GroupRecord) => ({
  id: g.id,
  name: g.name,
  groupKey: g.groupKey,
  userIds: g.userIds,
  createdAt: toIso(g.createdAt),
});

/** API shape of a device (the token itself is not shown to the console). */
export const deviceJson = (d: DeviceRecord) => ({
  id: d.id,
  name: d.name,
  platform: d.platform,
  channel: d.channel,
  topic: d.topic,
  createdAt: toIso(d.createdAt),
  lastSuccessAt: toIso(d.lastSuccessAt),
  deactivated: d.deactivatedAt !== null,
  deactivatedAt: toIso(d.deactivatedAt),
  deactivatedReason: d.deactivatedReason,
});

/** API shape of a stored notification with its delivery counts. */
export const notificationJson = (n: NotificationRecord) => ({
  id: n.id,
  app: { id: n.appId, name: n.appName },
  target: n.target,
  title: n.title,
  body: n.body,
  emoji: n.emoji,
  image: n.image,
  url: n.url,
  createdAt: toIso(n.createdAt),
  recipients: n.recipients,
  summary: n.deliveries,
});

/** API shape of one outbox row. */
export const deliveryJson = (d: DeliveryRecord) => ({
  id: d.id,
  deviceId: d.deviceId,
  deviceName: d.deviceName,
  userId: d.userId,
  channel: d.channel,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.status === 'pending' ? toIso(d.nextAttemptAt) : null,
  providerId: d.providerId,
  lastError: d.lastError,
  updatedAt: toIso(d.updatedAt),
});

const notFound = (what: string, id: string) => new HubError('not_found', `no ${what} has the id "${id}"`);

/**
 * The admin API (issue "Hub core" / "Admin API"): apps, receivers, User Groups, notifications.
 * Mount behind an admin session check. Unknown ids answer 404 JSON; bad bodies 400 JSON.
 */
export function createAdminRoutes({ store }: { store: Store }): Router {
  const router = Router();

  router.get('/apps', (_req, res) => {
    res.json(store.apps.list().map(appJson));
  });
  router.post('/apps', (req, res) => {
    const body = parseBody(createAppBody, req.body);
    const { app, apiKey } = store.apps.create(body.name);
    res.status(201).json({ id: app.id, name: app.name, apiKey, keyPrefix: app.keyPrefix, createdAt: toIso(app.createdAt) });
  });
  router.post('/apps/:id/rotate-key', (req, res) => {
    const apiKey = store.apps.rotateKey(req.params.id);
    if (!apiKey) throw notFound('app', req.params.id);
    res.json({ apiKey });
  });
  router.delete('/apps/:id', (req, res) => {
    if (!store.apps.delete(req.params.id)) throw notFound('app', req.params.id);
    res.status(204).end();
  });

  router.get('/users', (_req, res) => {
    res.json(store.users.list().map(userJson));
  });
  router.post('/users', async (req, res) => {
    const body = parseBody(createUserBody, req.body);
    const passwordHash = await hashPassword(body.password);
    const user = store.users.create({ name: body.name, username: body.username, passwordHash });
    res.status(201).json(userJson(user));
  });
  router.get('/users/:id', (req, res) => {
    const user = store.users.get(req.params.id);
    if (!user) throw notFound('user', req.params.id);
    res.json({ ...userJson(user), devices: store.devices.listForUser(user.id).map(deviceJson) });
  });
  router.get('/users/:id/devices', (req, res) => {
    if (!store.users.get(req.params.id)) throw notFound('user', req.params.id);
    res.json(store.devices.listForUser(req.params.id).map(deviceJson));
  });
  router.delete('/users/:id/devices/:deviceId', (req, res) => {
    if (!store.devices.delete(req.params.deviceId, req.params.id)) throw notFound('device of this user', req.params.deviceId);
    res.status(204).end();
  });
  router.patch('/users/:id', async (req, res) => {
    const body = parseBody(updateUserBody, req.body);
    const changes: { name?: string; passwordHash?: string } = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.password !== undefined) changes.passwordHash = await hashPassword(body.password);
    const user = store.users.update(req.params.id, changes);
    if (!user) throw notFound('user', req.params.id);
    res.json(userJson(user));
  });
  router.delete('/users/:id', (req, res) => {
    if (!store.users.delete(req.params.id)) throw notFound('user', req.params.id);
    res.status(204).end();
  });

  router.get('/groups', (_req, res) => {
    res.json(store.groups.list().map(groupJson));
  });
  router.post('/groups', (req, res) => {
    const body = parseBody(createGroupBody, req.body);
    res.status(201).json(groupJson(store.groups.create({ name: body.name, userIds: body.userIds ?? [] })));
  });
  router.get('/groups/:id', (req, res) => {
    const group = store.groups.get(req.params.id);
    if (!group) throw notFound('group', req.params.id);
    res.json(groupJson(group));
  });
  router.put('/groups/:id/members', (req, res) => {
    const body = parseBody(membersBody, req.body);
    const group = store.groups.setMembers(req.params.id, body.userIds);
    if (!group) throw notFound('group', req.params.id);
    res.json(groupJson(group));
  });
  router.delete('/groups/:id', (req, res) => {
    if (!store.groups.delete(req.params.id)) throw notFound('group', req.params.id);
    res.status(204).end();
  });

  router.get('/notifications', (req, res) => {
    const q = parseBody(notificationsQuery, req.query);
    const page = store.notifications.list(q);
    res.json({ items: page.items.map(notificationJson), next: page.next });
  });
  router.get('/notifications/:id', (req, res) => {
    const n = store.notifications.get(req.params.id);
    if (!n) throw notFound('notification', req.params.id);
    res.json({ ...notificationJson(n), deliveries: store.notifications.deliveries(n.id).map(deliveryJson) });
  });

  return router;
}
