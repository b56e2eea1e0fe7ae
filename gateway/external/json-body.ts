import express from 'express';

/**
 * JSON bodies of the external interfaces, parsed only after authentication and the rate limit
 * (their routers are mounted before the management interface's parser).
 */
export const jsonBody = express.json({ limit: '256kb' });
