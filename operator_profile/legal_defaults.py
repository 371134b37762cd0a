"""The legal texts a fresh install publishes as version 1 (migrations/0006 and 0009), in German and English.
They are templates: the operator completes them (and has a lawyer check them) in the admin. `{placeholders}`
are filled from the operator profile when a page shows them (operator_profile/legal.py)."""

TEMPLATE_NOTE_DE = (
    "Vorlage: Der Betreiber vervollständigt diesen Text unter Admin → Rechtstexte und lässt ihn rechtlich "
    "prüfen."
)
TEMPLATE_NOTE_EN = (
    "Template: the operator completes this text under Admin → Legal texts and has it checked by a lawyer."
)

IMPRINT_DE = f"""{TEMPLATE_NOTE_DE}

## Informationen gemäß § 5 ECG und Offenlegung gemäß § 25 MedienG

{{legal_name}}
{{address}}

Telefon: {{phone}}
E-Mail: {{email}}

## Unternehmensangaben

- Unternehmensgegenstand: {{business_purpose}}
- Firmenbuchnummer: {{company_register_number}}
- Firmenbuchgericht: {{company_register_court}}
- UID-Nummer: {{vat_id}}
- Aufsichtsbehörde (Gewerbebehörde): {{supervisory_authority}}
- Kammerzugehörigkeit: {{chamber}}
- Anwendbare Rechtsvorschriften: {{trade_regulations}}

## Medieninhaber und Herausgeber

{{legal_name}}, {{address}}. Grundlegende Richtung: Information über die Chauffeur- und \
Transferleistungen des Unternehmens und deren Buchung.

## Online-Streitbeilegung

Verbraucher können sich mit Beschwerden an die Online-Streitbeilegungsplattform der EU wenden: \
https://ec.europa.eu/consumers/odr oder an uns unter {{email}}."""

IMPRINT_EN = f"""{TEMPLATE_NOTE_EN}

## Information under § 5 ECG and disclosure under § 25 MedienG (Austria)

{{legal_name}}
{{address}}

Phone: {{phone}}
E-mail: {{email}}

## Company details

- Business purpose: {{business_purpose}}
- Company register number: {{company_register_number}}
- Company register court: {{company_register_court}}
- VAT id (UID): {{vat_id}}
- Supervisory authority (trade authority): {{supervisory_authority}}
- Chamber membership: {{chamber}}
- Applicable trade law: {{trade_regulations}}

## Media owner and publisher

{{legal_name}}, {{address}}. Editorial line: information about the company's chauffeur and transfer \
services and how to book them.

## Online dispute resolution

Consumers may bring complaints to the EU's online dispute resolution platform: \
https://ec.europa.eu/consumers/odr or to us at {{email}}."""

TERMS_DE = f"""{TEMPLATE_NOTE_DE}

## Allgemeine Geschäftsbedingungen von {{legal_name}}

Diese Bedingungen gelten für alle Fahrten, die Sie bei {{legal_name}} ({{address}}) online, telefonisch \
oder über Partner buchen.

## Vertragsschluss und Preis

Der Vertrag kommt zustande, wenn Ihre Zahlung bei uns eingegangen ist; Sie erhalten eine Bestätigung per \
E-Mail. Der vor der Zahlung angezeigte Preis ist ein Fixpreis in Euro inklusive Umsatzsteuer.

## Stornierung

Sie können Ihre Buchung über den Link in Ihrer Bestätigung stornieren. Bis zu der vor der Zahlung \
genannten Frist vor der Abholung ist die Stornierung kostenlos; danach behalten wir den dort genannten \
Anteil des Preises ein; ab der Abholzeit wird nichts erstattet.

## Wartezeit und Änderungen

Verspätete Flüge verfolgen wir anhand der angegebenen Flugnummer. Änderungen der Fahrt sind nach \
Absprache möglich; ein Mehrpreis wird gesondert verrechnet.

## Haftung und Recht

Es gilt österreichisches Recht unter Ausschluss der Verweisungsnormen; zwingende \
Verbraucherschutzbestimmungen bleiben unberührt."""

TERMS_EN = f"""{TEMPLATE_NOTE_EN}

## Terms and conditions of {{legal_name}}

These terms apply to every ride you book with {{legal_name}} ({{address}}) online, by phone or through \
partners.

## Contract and price

The contract is made when your payment has reached us; you receive a confirmation by e-mail. The price \
shown before payment is a fixed price in euros including VAT.

## Cancellation

You can cancel your booking through the link in your confirmation. Cancelling is free until the time \
before the pickup stated before payment; after that we keep the share of the price stated there; from the \
pickup on nothing is refunded.

## Waiting time and changes

We follow delayed flights by the flight number you give. Changes to the ride are possible by agreement; \
a higher price is charged separately.

## Liability and law

Austrian law applies, excluding its conflict-of-law rules; mandatory consumer protection rules remain \
unaffected."""

PRIVACY_DE = f"""{TEMPLATE_NOTE_DE}

## Verantwortlicher

{{legal_name}}, {{address}}, {{email}}

## Welche Daten wir verarbeiten und wozu

Für Ihre Buchung verarbeiten wir Name, E-Mail-Adresse, Telefonnummer, Abhol- und Zieladresse, Zeitpunkt, \
Flugnummer und Ihre Hinweise, um die Fahrt durchzuführen (Art. 6 Abs. 1 lit. b DSGVO), und die \
Rechnungsdaten, solange das Steuerrecht es verlangt (Art. 6 Abs. 1 lit. c DSGVO).

## Empfänger

Ihr Chauffeur erhält die Daten der Fahrt. Zahlungen wickelt unser Zahlungsdienstleister ab; \
Adressvorschläge und Routen können über einen Kartendienst berechnet werden. Teilt Ihr Chauffeur seinen \
Standort (nur mit seiner Einwilligung), sehen Sie ihn, während er zur Abholung unterwegs ist, auf Ihrer \
Buchungsseite mit der voraussichtlichen Ankunftszeit; zeigt die Seite ihn auf einer Karte, lädt Ihr Browser \
die Kartenbilder von unserem Kartenanbieter, der dabei Ihre IP-Adresse und den gezeigten Kartenausschnitt \
erfährt.

## Ihre Rechte

Sie haben das Recht auf Auskunft, Berichtigung, Löschung, Einschränkung, Datenübertragbarkeit und \
Widerspruch. Schreiben Sie uns an {{email}}. Beschwerden richten Sie an die Österreichische \
Datenschutzbehörde (www.dsb.gv.at).

## Cookies

Die Buchungsseite setzt nur technisch notwendige Cookies (Sprache, Sicherheit)."""

PRIVACY_EN = f"""{TEMPLATE_NOTE_EN}

## Controller

{{legal_name}}, {{address}}, {{email}}

## What data we process and why

For your booking we process your name, e-mail address, phone number, pickup and destination, time, \
flight number and your notes to carry out the ride (Art. 6(1)(b) GDPR), and the invoicing data as long \
as tax law requires (Art. 6(1)(c) GDPR).

## Recipients

Your chauffeur receives the ride's details. Payments are handled by our payment provider; address \
suggestions and routes may be computed by a map service. When your chauffeur shares their position (only \
with their consent), you see it on your booking page while they come to the pickup, with the expected \
arrival time; where the page shows it on a map, your browser loads the map images from our map tile \
provider, which thereby learns your IP address and the map area shown.

## Your rights

You have the right of access, rectification, erasure, restriction, data portability and objection. \
Write to us at {{email}}. You may lodge a complaint with the Austrian Data Protection Authority \
(www.dsb.gv.at).

## Cookies

The booking page sets only technically necessary cookies (language, security)."""

# After the model statement of the EU (Implementing Decision (EU) 2018/1523), as the Austrian accessibility
# law (BaFG) asks of services sold online.
ACCESSIBILITY_DE = f"""{TEMPLATE_NOTE_DE}

## Barrierefreiheit

{{legal_name}} will diese Website und ihre Buchungsseiten für alle Menschen zugänglich machen, wie es das \
Barrierefreiheitsgesetz (BaFG) verlangt. Diese Erklärung gilt für die Buchungsseiten, die Seiten zur \
Verwaltung einer Buchung und die Rechtstexte dieser Website.

## Stand der Vereinbarkeit

Diese Website ist mit den Anforderungen der EN 301 549 und der Web Content Accessibility Guidelines \
(WCAG 2.1, Stufe AA) teilweise vereinbar, aufgrund der unten genannten Einschränkungen.

## Nicht barrierefreie Inhalte

- Rechnungen und Gutschriften als PDF-Dateien sind nicht für Screenreader ausgezeichnet. Auf Anfrage \
senden wir ihren Inhalt in einer anderen Form.
- Die Zahlungsseite gehört unserem Zahlungsanbieter; für ihre Barrierefreiheit ist er verantwortlich.

## Erstellung dieser Erklärung

Diese Erklärung beruht auf einer Selbstbewertung: Jede Seite wird bei jeder Änderung automatisch \
(axe-core) und mit der Tastatur geprüft.

## Feedback und Kontakt

Stoßen Sie auf eine Barriere? Schreiben Sie uns an {{email}} oder rufen Sie an: {{phone}}. Wir \
antworten innerhalb von zwei Wochen und helfen Ihnen inzwischen, Ihre Fahrt anders zu buchen.

## Durchsetzungsverfahren

Sind Sie mit unserer Antwort nicht zufrieden, können Sie sich an das Sozialministeriumservice wenden, \
die Marktüberwachungsbehörde nach dem BaFG, und dort auch ein Schlichtungsverfahren beantragen \
(www.sozialministeriumservice.at)."""

ACCESSIBILITY_EN = f"""{TEMPLATE_NOTE_EN}

## Accessibility

{{legal_name}} wants this website and its booking pages to be usable by everyone, as the Austrian \
Accessibility Act (Barrierefreiheitsgesetz, BaFG) requires. This statement covers the booking pages, the \
pages for managing a booking and the legal texts of this website.

## Compliance status

This website is partially compliant with EN 301 549 and the Web Content Accessibility Guidelines \
(WCAG 2.1, level AA), due to the limits listed below.

## Content that is not accessible

- Invoices and credit notes as PDF files are not tagged for screen readers. On request we send their \
content in another form.
- The payment page belongs to our payment provider, who is responsible for its accessibility.

## Preparation of this statement

This statement is based on a self-assessment: every page is checked automatically (axe-core) and with \
the keyboard whenever it changes.

## Feedback and contact

Did you meet a barrier? Write to us at {{email}} or call {{phone}}. We answer within two weeks and help \
you book your ride another way in the meantime.

## Enforcement procedure

If our answer does not satisfy you, you may turn to the Sozialministeriumservice, the market \
surveillance authority under the BaFG, and ask for a conciliation procedure there \
(www.sozialministeriumservice.at)."""

DEFAULTS = {
    "imprint": (IMPRINT_DE, IMPRINT_EN),
    "terms": (TERMS_DE, TERMS_EN),
    "privacy": (PRIVACY_DE, PRIVACY_EN),
    "accessibility": (ACCESSIBILITY_DE, ACCESSIBILITY_EN),
}
