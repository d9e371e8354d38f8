/**
 * Word lists the generator draws transcripts, summaries and names from. Accented letters stay within
 * Latin-1 on purpose: V8 keeps such strings one byte per character, which keeps encoding the
 * benchmark's JSON fast (a single ’ makes the whole record two-byte).
 */
export const LANGUAGES = ['en', 'fr', 'es', 'de'] as const;
type Language = (typeof LANGUAGES)[number];

const WORDS: Readonly<Record<Language, readonly string[]>> = {
  en: (
    'the a we our customer call today meeting team project quarter revenue support ticket issue ' +
    'update release plan schedule budget review account invoice order delivery shipping product ' +
    'feature question answer thanks okay yes no maybe right now next week Monday Friday morning ' +
    'afternoon please could would should think know need want help check send email report data ' +
    'numbers growth churn pricing contract renewal onboarding training demo slide agenda notes ' +
    'action item follow up deadline priority risk blocker done great sure exactly actually'
  ).split(' '),
  fr: (
    "le la les nous notre client appel aujourd'hui réunion équipe projet trimestre chiffre support " +
    'ticket problème mise à jour version plan calendrier budget revue compte facture commande ' +
    "livraison produit fonction question réponse merci d'accord oui non peut-être maintenant semaine " +
    'lundi vendredi matin après-midi voilà donc alors bien sûr exactement vraiment'
  ).split(' '),
  es: (
    'el la los nosotros nuestro cliente llamada hoy reunión equipo proyecto trimestre ingresos ' +
    'soporte ticket problema actualización versión plan calendario presupuesto revisión cuenta ' +
    'factura pedido entrega producto función pregunta respuesta gracias vale sí no quizás ahora ' +
    'semana lunes viernes mañana tarde entonces bueno claro exactamente realmente'
  ).split(' '),
  de: (
    'der die das wir unser Kunde Anruf heute Besprechung Team Projekt Quartal Umsatz Support ' +
    'Ticket Problem Aktualisierung Version Plan Zeitplan Budget Prüfung Konto Rechnung Bestellung ' +
    'Lieferung Produkt Funktion Frage Antwort danke okay ja nein vielleicht jetzt Woche Montag ' +
    'Freitag Morgen Nachmittag also gut genau wirklich natürlich'
  ).split(' '),
};

export function wordsOf(language: string): readonly string[] {
  return WORDS[language as Language] ?? WORDS.en;
}

export const PEOPLE = [
  'Alice Martin',
  'Bruno Keller',
  'Chloé Dubois',
  'Diego Ramos',
  'Emma Schulz',
  'Farid Haddad',
];
export const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Labs', 'Hooli', 'Vandelay Industries'];
export const TEAMS = ['sales', 'support', 'research'] as const;
