import type { RequestHandler } from 'express';
import type { Logger } from '../../common/logger';

/**
 * One structured line per request. Only the path is logged, never the query string: the simple
 * interface carries the device token there (SPEC §5 rule 5).
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // At a level above info (LOG_LEVEL=warn) the line would be dropped: no timer, no listener.
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = req.originalUrl.split('?')[0];
      logger.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
