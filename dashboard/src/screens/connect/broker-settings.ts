import { useState } from 'react';

/**
 * Where devices connect: the broker's URL and the topic root (DESIGN §6). No API tells the console
 * yet (docs/console.md "Connect panel"), so it guesses the page's host on port 1883 with the
 * default root `dds`, and an operator who knows better sets them once for this browser.
 */
export interface BrokerSettings {
  mqttUrl: string;
  topicRoot: string;
  /** `guess` until someone set them in this browser. */
  source: 'guess' | 'set';
}

const KEY = 'dds.broker';
export const TOPIC_ROOT_PATTERN = /^[A-Za-z0-9_-]+$/;

export function isBrokerUrl(text: string): boolean {
  try {
    return ['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function guess(): BrokerSettings {
  return { mqttUrl: `mqtt://${location.hostname}:1883`, topicRoot: 'dds', source: 'guess' };
}

function stored(): BrokerSettings | null {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (typeof value !== 'object' || value === null) return null;
    const { mqttUrl, topicRoot } = value as Record<string, unknown>;
    if (typeof mqttUrl !== 'string' || !isBrokerUrl(mqttUrl) || typeof topicRoot !== 'string' || !TOPIC_ROOT_PATTERN.test(topicRoot))
      return null;
    return { mqttUrl, topicRoot, source: 'set' };
  } catch {
    return null;
  }
}

/** The broker settings of this browser, and a setter that keeps them (null forgets them: back to the guess). */
export function useBrokerSettings(): [BrokerSettings, (next: { mqttUrl: string; topicRoot: string } | null) => void] {
  const [settings, setSettings] = useState<BrokerSettings>(() => stored() ?? guess());
  const save = (next: { mqttUrl: string; topicRoot: string } | null) => {
    if (next) localStorage.setItem(KEY, JSON.stringify(next));
    else localStorage.removeItem(KEY);
    setSettings(next ? { ...next, source: 'set' } : guess());
  };
  return [settings, save];
}
