import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.js';
import { resolveTopicSettings, topicForDuration, validateTopicSettings } from './meeting-topic.js';

const newUuid = () => '00000000-0000-7000-8000-000000000001';

describe('several durations', () => {
  it('a topic of one length follows a changed durationMinutes; a topic with a choice keeps its lengths', () => {
    const single = resolveTopicSettings({ name: 'Intro', durationMinutes: 30 }, undefined, ['zoom'], newUuid);
    expect(single.durations).toEqual([30]);
    expect(resolveTopicSettings({ durationMinutes: 45 }, single, ['zoom'], newUuid).durations).toEqual([45]);
    const choice = resolveTopicSettings({ name: 'Intro', durationMinutes: 30, durations: [60, 30, 15, 30] }, undefined, ['zoom'], newUuid);
    expect(choice.durations).toEqual([15, 30, 60]);
    const moved = resolveTopicSettings({ durationMinutes: 45 }, choice, ['zoom'], newUuid);
    expect(validateTopicSettings(moved, ['zoom']).map((error) => error.path)).toEqual(['/durations']);
  });

  it('books the chosen length as the topic’s length, and refuses one it does not offer at /duration', () => {
    const topic = { durationMinutes: 30, durations: [30, 60] };
    expect(topicForDuration(topic, undefined)).toBe(topic);
    expect(topicForDuration(topic, 60)).toEqual({ durationMinutes: 60, durations: [30, 60] });
    expect(() => topicForDuration(topic, 45)).toThrow(ValidationError);
  });
});
