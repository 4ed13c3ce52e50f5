import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

/**
 * The main booking flow through a client generated from the OpenAPI document
 * (openapi-typescript) and driven by openapi-fetch. It is type-checked against the
 * committed schema (npm test's type-check) and, by client.test.ts, against one freshly
 * generated from the running service: a document change that breaks clients fails there.
 */
export async function runBookingFlow(baseUrl: string, apiKey: string, username: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Service-Api-Key': apiKey } });

  const created = await client.POST('/api/v1/meeting-topics', { body: { name: 'Generated client', durationMinutes: 30, places: ['offline'] } });
  if (!created.data) throw new Error(`create topic: ${created.response.status}`);
  const topic = created.data;

  const calculated = await client.POST('/api/v1/calculate-schedule', { body: { username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 } });
  if (!calculated.data) throw new Error(`calculate: ${calculated.response.status}`);
  const slot = calculated.data.days.flatMap((day) => day.slots)[0];
  if (!slot) throw new Error('no free slot');

  const booked = await client.POST('/api/v1/schedule', {
    params: { header: { 'idempotency-key': `flow-${topic.uuid}` } },
    body: { dates: [slot], email: 'client@example.com', lang: 'en', name: 'Generated Client', place: 'offline', meetingTopic: topic.uuid, timezone: 'Europe/Warsaw' },
  });
  if (!booked.data) throw new Error(`book: ${booked.response.status}`);
  const meeting = booked.data.meetings[0]!;

  const listed = await client.GET('/api/v1/meetings', { params: { query: { limit: 10 } } });
  if (!listed.data) throw new Error(`list: ${listed.response.status}`);

  // The cancel body is optional in the document, so a bare call type-checks.
  const cancelled = await client.POST('/api/v1/meetings/{uuid}/cancel', { params: { path: { uuid: meeting.uuid } } });
  if (!cancelled.data) throw new Error(`cancel: ${cancelled.response.status}`);

  // Errors come back typed as problem details.
  const missing = await client.GET('/api/v1/meetings/{uuid}', { params: { path: { uuid: '00000000-0000-4000-8000-000000000000' } } });
  const problemCode: string | undefined = missing.error?.code;

  return {
    topicUuid: topic.uuid,
    slot,
    meetingUuid: meeting.uuid,
    bookedStatus: meeting.status,
    location: booked.response.headers.get('location'),
    listedUuids: listed.data.meetings.map((m) => m.uuid),
    cancelledStatus: cancelled.data.status,
    problemCode,
    problemContentType: missing.response.headers.get('content-type'),
  };
}
