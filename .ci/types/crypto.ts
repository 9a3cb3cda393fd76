/** Type matrix consumer: the crypto entry. */
import { FileKeyStore, generateKeys, keyFingerprint, type KeyPair } from 'agent-messaging-sdk/crypto';

export async function main(): Promise<void> {
  const store = new FileKeyStore({ directory: '/tmp/keys/a1' });
  void store;
  const keys = generateKeys();
  const pair: KeyPair = keys.encryption;
  void [pair, keyFingerprint];
}
