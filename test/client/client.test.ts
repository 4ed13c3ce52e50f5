import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { runBookingFlow } from './flow.js';
import { currentDocument, generateTypes } from './generate.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');

describe('a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  let t: TestApp;
  let acme: CreatedAccount;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock('2027-01-04T06:00:00.000Z'));
    acme = await createTestAccount(t.ctx);
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t.close());

  it('type-checks the flow against types generated from the service’s document as it is now', async () => {
    // Inside the project, so the check resolves openapi-fetch like the project does.
    const dir = path.join(here, `.check-${randomUUID()}`);
    fs.mkdirSync(dir);
    try {
      fs.writeFileSync(path.join(dir, 'schema.d.ts'), await generateTypes(await currentDocument()));
      fs.copyFileSync(path.join(here, 'flow.ts'), path.join(dir, 'flow.ts'));
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.' }, include: ['flow.ts', 'schema.d.ts'] }),
      );
      const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
      const result = await promisify(execFile)(tsc, ['-p', path.join(dir, 'tsconfig.json')], { cwd: root }).then(
        () => '',
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
      );
      expect(result).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the committed types in step with the document (regenerate: npx tsx test/client/generate.ts)', async () => {
    const committed = fs.readFileSync(path.join(here, 'schema.d.ts'), 'utf8');
    const fresh = await generateTypes(await currentDocument());
    // Only the operations the flow uses must match; other engineers' new routes need not break this.
    const section = (text: string, id: string) => new RegExp(`  ${id}: \\{[\\s\\S]*?\\n  \\};`).exec(text.slice(text.indexOf('export interface operations')))?.[0];
    for (const id of ['createMeetingTopic', 'calculateSchedule', 'scheduleMeetings', 'listMeetings', 'cancelMeeting', 'getMeeting']) {
      expect(section(committed, id), id).toBe(section(fresh, id));
    }
  });

  it('runs the booking flow against a listening server: create topic, calculate, book, list, cancel', async () => {
    const outcome = await runBookingFlow(baseUrl, acme.apiKey, acme.owner.username);
    expect(outcome.slot.username).toBe(acme.owner.username);
    expect(outcome.bookedStatus).toBe('confirmed');
    expect(outcome.location).toBe(`/api/v1/meetings/${outcome.meetingUuid}`);
    expect(outcome.listedUuids).toContain(outcome.meetingUuid);
    expect(outcome.cancelledStatus).toBe('cancelled');
    expect(outcome.problemCode).toBe('NOT_FOUND');
    expect(outcome.problemContentType).toMatch(/^application\/problem\+json/);
  });
});
