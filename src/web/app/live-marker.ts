/**
 * `<html data-app="live">`: the app has taken the page over (firstScreen.tsx). Until then a page the
 * server drew is only its HTML: a link is followed by the browser, and a history change reaches no
 * router. Browser tests wait on it before they move within the app.
 */
export const LIVE_ATTRIBUTE = 'data-app';
