/**
 * A message ready for a transport: what rendering produces and what the transport sends.
 * Its own module, beside neither, so that render.ts and transport.ts need not import
 * each other.
 */
export interface RenderedMessage {
  to: { name: string; email: string };
  subject: string;
  text: string;
  /** The same message as HTML, every value escaped; for a transport that sends both. */
  html: string;
  ics: { method: 'REQUEST' | 'CANCEL'; content: string };
}

/** The `ics` of a message that is no invitation (a notice to admins): the transport attaches nothing. */
export const NO_INVITATION: RenderedMessage['ics'] = Object.freeze({ method: 'REQUEST', content: '' });

/**
 * The business's look in a message, captured when it is queued: the name it signs with, its
 * logo as termin serves it (the only image a message loads), and its accent colour, already
 * made readable with white text (domain/branding.ts). Absent: termin's own look.
 */
export interface MessageBranding {
  name: string;
  logo: string | null;
  accent: string;
}
