import { linkifyText } from '../../domain/text.js';
import type { BrandingView } from '../../scheduling/account/branding.js';
import { html, SafeHtml } from './html.js';

/** What a participant's page shows of the business: its name, its logo (served by termin) and its colour's stylesheet. */
export type PageBranding = Pick<BrandingView, 'businessName' | 'logoPath' | 'themePath'>;

/** The stylesheets of a page: booking.css, then the business's accent (which overrides its variables). */
export function brandedStylesheets(stylesheet: string, branding: PageBranding | null | undefined): string[] {
  return branding?.themePath ? [stylesheet, branding.themePath] : [stylesheet];
}

/** The name the page shows: the business's own, else the account's. */
export function brandName(branding: PageBranding | null | undefined, accountName: string): string {
  return branding?.businessName ?? accountName;
}

/** The logo and the name above a page's title; `rest` follows the name (the host, the team). */
export function brandLine(branding: PageBranding | null | undefined, accountName: string, rest: SafeHtml | string = ''): SafeHtml {
  const name = brandName(branding, accountName);
  if (!branding?.logoPath) return html`<p class="account">${name}${rest}</p>`;
  // The name is said once: the logo's alt stays empty beside the written name.
  return html`<p class="account brand"><img src="${branding.logoPath}" alt="" width="40" height="40"><span>${name}${rest}</span></p>`;
}

/** A business's message (plain text): escaped, its http(s) links clickable, its line breaks kept. */
export function businessMessage(text: string, id: string): SafeHtml | string {
  if (text.trim() === '') return '';
  // linkifyText escapes everything but the links it makes.
  return html`<div class="confirmation-message" id="${id}"><p>${new SafeHtml(linkifyText(text))}</p></div>`;
}
